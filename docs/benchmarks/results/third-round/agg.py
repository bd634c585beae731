import sys, re, collections
# usage: jfr print --events jdk.ExecutionSample --stack-depth 64 f.jfr | python3 agg.py [top]
top = int(sys.argv[1]) if len(sys.argv) > 1 else 30
selfc = collections.Counter(); incl = collections.Counter(); threads = collections.Counter()
total = 0
thread = None; stack = []; instack = False
def flush():
    global total
    if not stack: return
    total += 1
    t = re.sub(r'-\d+$', '', thread or '?')
    threads[t] += 1
    selfc[(t, stack[0])] += 1
    for m in set(stack):
        incl[(t, m)] += 1
for line in sys.stdin:
    line = line.strip()
    if line.startswith('jdk.ExecutionSample'):
        stack = []; thread = None; instack = False
    elif line.startswith('sampledThread'):
        m = re.search(r'"([^"]*)"', line); thread = m.group(1) if m else '?'
    elif line.startswith('stackTrace = ['):
        instack = True
    elif instack and line == ']':
        instack = False; flush(); stack = []
    elif instack and line and line != '...':
        stack.append(re.sub(r'\s+line:.*', '', line))
print('total samples', total)
for t, c in threads.most_common(): print(f'thread {t}: {c} ({100*c/total:.1f}%)')
print('--- self')
for (t, m), c in selfc.most_common(top): print(f'{c:6d} {100*c/total:5.1f}% {t:20s} {m}')
print('--- inclusive')
for (t, m), c in incl.most_common(top): print(f'{c:6d} {100*c/total:5.1f}% {t:20s} {m}')
