// A webhook receiver for the benchmark: answers 200 to every POST and counts them; GET /count
// returns the count. Port: the first argument. Runs as its own process so it does not share the load generator's loop.
import http from 'node:http';

let count = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.setHeader('content-type', 'application/json');
    return res.end(JSON.stringify({ count }));
  }
  req.resume();
  req.on('end', () => {
    count += 1;
    res.end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.argv[2]), '127.0.0.1');
