// An upstream that answers every request with an SSE stream and keeps it
// open (one comment line every 10 s) until the client goes away: for holding
// thousands of concurrent streams through the proxy.
import http from 'node:http';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('event: message_start\ndata: {"type":"message_start"}\n\n');
    const timer = setInterval(() => res.write(': still here\n\n'), 10000);
    res.on('close', () => clearInterval(timer));
  });
});
server.keepAliveTimeout = 120000;
server.headersTimeout = 120000;
server.requestTimeout = 0;
server.maxConnections = 100000;
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
