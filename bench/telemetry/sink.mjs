// A minimal OTLP/HTTP sink for the telemetry benchmark: answers 200 to every
// POST and counts requests and bytes (GET /count). Not a decoder: the tests
// (tests/telemetry) check what weld sends; the benchmark only needs a
// collector that is always there and fast.
import http from 'node:http';

let requests = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.end(JSON.stringify({ requests, bytes }));
    return;
  }
  req.on('data', (c) => { bytes += c.length; });
  req.on('end', () => { requests += 1; res.writeHead(200, { 'content-type': 'application/x-protobuf' }); res.end(); });
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ port: server.address().port }));
});
