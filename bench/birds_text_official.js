// The official npm implementation on the same workload as bench/birds_text_bench.cc, for a side-by-side
// ratio. Run: NODE_PATH=build/release/oracle/node_modules node bench/birds_text_official.js
// (the oracle folder is installed by tests/oracle/install.sh, which make test runs).
const o = require('chatgpt4pcg');
// Same generator shape as bench/birds_text_bench.cc (different RNG; same sizes: 10-30 calls).
let s = 7; const rnd = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
const types = ['b11', 'b13', 'b31'];
const rs = [];
for (let i = 0; i < 10000; i++) {
  let r = 'Sure! Here is a structure that looks like the letter. First we build the base, then the stem.\n```python\n';
  const calls = 10 + rnd(21);
  for (let k = 0; k < calls; k++) { r += `drop_block('${types[rnd(3)]}', ${1 + rnd(18)})\n`; if (rnd(6) === 0) r += '# keep it balanced\n'; }
  r += '```\nThis should be stable.'; rs.push(r);
}
const times = [];
for (let rep = 0; rep < 3; rep++) {
  const t0 = process.hrtime.bigint(); let ok = 0;
  for (const r of rs) { const c = o.extractCode(r); if (c) { try { o.convertTextToXML(c); ok++; } catch (e) {} } }
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (rep === 2) console.log('ok', ok);
}
times.sort((a, b) => a - b); console.log('median ms', times[1]);
