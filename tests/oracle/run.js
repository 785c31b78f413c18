// Runs the official implementations on a batch of cases: node run.js ORACLE_DIR CASES.json OUT.json
// Each case: {"kind": "extract"|"convert"|"words"|"qualify", "text": "...", "fn": "drop_block"}.
'use strict';
const fs = require('fs');
const path = require('path');
const [, , dir, casesPath, outPath] = process.argv;
const official = require(path.join(dir, 'node_modules', 'chatgpt4pcg'));
const wordsCount = require(path.join(dir, 'node_modules', 'words-count')).default;
const cases = JSON.parse(fs.readFileSync(casesPath, 'utf8'));
const out = cases.map((c) => {
  try {
    switch (c.kind) {
      case 'extract': return { value: official.extractCode(c.text, c.fn) };
      case 'convert': return { value: official.convertTextToXML(c.text, c.fn + '(') };
      case 'words': return { value: wordsCount(c.text) };
      case 'qualify':
        return { value: [official.countWords(c.text), official.containDisallowedCharacters(c.text),
                         official.containObjectTokens(c.text)] };
      default: return { error: 'unknown kind ' + c.kind };
    }
  } catch (e) {
    return { error: e.message };
  }
});
fs.writeFileSync(outPath, JSON.stringify(out));
