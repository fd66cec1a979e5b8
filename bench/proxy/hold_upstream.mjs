// An upstream that answers every request with an SSE stream and keeps it
// open (one comment line every 10 s) until the client goes away: for holding
// thousands of concurrent streams through the proxy.
import http from 'node:http';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // A complete message_start (weld's tagged path reads it; a bare one is
    // a malformed stream and would end the request at once).
    res.write('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_hold","type":"message",' +
      '"role":"assistant","model":"bench","content":[],"stop_reason":null,"stop_sequence":null,' +
      '"usage":{"input_tokens":1,"output_tokens":0}}}\n\n');
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
