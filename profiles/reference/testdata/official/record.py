#!/usr/bin/env python3
"""Run a golden txtar's client section against the official server; print the
server section it would give (sorted keys, indent 2, $ROOT)."""
import json, os, subprocess, sys, tempfile, select
def parse(path):
    comment, files, cur, buf = [], [], None, []
    text = open(path, encoding='utf-8').read()
    if text.endswith('\n'): text = text[:-1]
    for line in text.split('\n'):
        if line.startswith('-- ') and line.endswith(' --') and len(line) > 6:
            if cur is not None: files.append((cur, '\n'.join(buf) + ('\n' if buf else '')))
            cur, buf = line[3:-3], []
        elif cur is None: comment.append(line)
        else: buf.append(line)
    if cur is not None: files.append((cur, '\n'.join(buf) + ('\n' if buf else '')))
    return files
def main(path):
    files = parse(path)
    base = os.path.realpath(tempfile.mkdtemp())
    root = os.path.join(base, 'root'); os.makedirs(root)
    client = ''
    for name, data in files:
        if name.startswith('root/'):
            p = os.path.join(root, name[5:]); os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, 'w').write(data)
        elif name == 'client': client = data.replace('$ROOT', root)
    setup = os.environ.get('SETUP')
    if setup: subprocess.run(['bash', '-c', setup], cwd=root, check=True)
    proc = subprocess.Popen(['node', os.environ.get('OFFICIAL', 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), root],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    dec = json.JSONDecoder(); s = client.strip(); i = 0; out = []
    while i < len(s):
        while i < len(s) and s[i].isspace(): i += 1
        if i >= len(s): break
        msg, j = dec.raw_decode(s, i); i = j
        proc.stdin.write(json.dumps(msg) + '\n'); proc.stdin.flush()
        if 'id' in msg and 'method' in msg:
            while True:
                r,_,_ = select.select([proc.stdout],[],[],5)
                if not r: out.append('(no answer)'); break
                line = proc.stdout.readline()
                if not line: break
                m = json.loads(line)
                out.append(json.dumps(m, indent=2, sort_keys=True, ensure_ascii=False))
                if m.get('id') == msg['id'] and 'method' not in m: break
    proc.stdin.close(); proc.wait()
    text = '\n'.join(out) + '\n'
    print(text.replace(root, '$ROOT'), end='')
main(sys.argv[1])
