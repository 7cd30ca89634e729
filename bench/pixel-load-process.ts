// The open pixel's load in a process of its own, so that a burst of opens beside another load is
// not slowed (or the other load) by sharing the benchmark's one thread. Arguments: URL, a file of
// tokens (one per line), connections, overall rate (0: as fast as it goes), seconds. Prints the
// autocannon result's figures as one JSON line (`answered`: with a paced rate, autocannon's `sent`
// also counts requests it scheduled but never wrote).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, tokensFile, connections, rate, seconds, userAgent] = process.argv.slice(2);
const tokens = readFileSync(tokensFile!, 'utf8').split('\n').filter(Boolean);
let i = 0;
const r = await autocannon({
  url: url!,
  connections: Number(connections),
  duration: Number(seconds),
  ...(Number(rate) ? { overallRate: Number(rate) } : {}),
  headers: { 'user-agent': userAgent ?? 'bench' },
  requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/t/o/${tokens[i++ % tokens.length]}.gif` }) }],
});
process.stdout.write(
  `${JSON.stringify({ average: r.requests.average, answered: r.requests.total, p99: r.latency.p99, errors: r.errors + r.non2xx })}\n`,
);
