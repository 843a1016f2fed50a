import { ADAPTERS } from '../src/core/formats/registry';
const M = Number(process.env.SIZE ?? 65536);
const rep = (s: string) => s.repeat(Math.ceil(M / s.length)).slice(0, M);
const inputs: Record<string, string> = {
  newlines: rep('\n'), spaces: rep(' '), braces: rep('{'), mix: rep('{ \n'), crlf: rep('\r\n'),
  openBrace: rep('{\n'), typeLines: rep('{"type":"x"\n'), typeRepeat: rep('{"type":'), typeSpaces: rep('{ "type" : '),
  parent: rep('"parentUuid":null,'), parentQ: rep('"parentUuid":"'), session: rep('"sessionId":'), ts: rep('{"timestamp":"'),
  tsType: rep('{"timestamp":"a","type":"session_meta",'), summary: rep('{"type":"summary","summary":'),
  quotes: rep('"'), colons: rep('":'), version: rep('{"version":1,'), messages: rep('"messages":['), contents: rep('"contents":[{'),
  model: rep('"model":"'), role: rep('{"role":"user","content":'), nested: rep('[{'), evalKey: rep('"eval":{'),
  spans: rep('"resourceSpans":['), backslash: rep('\\"'), unicode: rep('\u00e9\u2028'),
};
for (const [name, text] of Object.entries(inputs)) {
  for (const a of ADAPTERS) {
    const t = performance.now();
    try { a.sniff(text); } catch (e) { console.log('THROW', name, a.id, String(e)); }
    const ms = performance.now() - t;
    if (ms > 20) process.stderr.write(`${name} ${a.id} ${ms.toFixed(0)}ms\n`); if (0) console.log(name, a.id, ms.toFixed(0) + 'ms');
  }
}
console.log('done');
