# Medians of benchmarks/redis-side-by-side.sh result lines, per server and scenario: python3 benchmarks/redis-summary.py FILE
import re,sys,statistics as st
rows=[dict(kv.split('=',1) for kv in l.split()) for l in open(sys.argv[1]) if l.startswith('server=')]
groups={}
for r in rows:
    groups.setdefault((r['scenario'],r['clients']),{}).setdefault(r['server'],[]).append(r)
for (sc,cl),by in sorted(groups.items()):
    print(f"== {sc} clients={cl} (rounds: " + ", ".join(f"{s}={len(v)}" for s,v in by.items()) + ")")
    metrics=[k for k in by.get('redis',by.get('ours'))[0] if k not in ('server','scenario','clients','keys','handoffs','timeout_ms')]
    for m in metrics:
        vals={s:[float(r[m]) for r in v] for s,v in by.items()}
        # the i-th run of each server belong to the same round: ratio per round, then the median of the rounds
        ratios=[o/r for r,o in zip(vals.get('redis',[]),vals.get('ours',[])) if r]
        ratio=st.median(ratios) if ratios else float('nan')
        print(f"  {m:22s} redis={vals.get('redis')} ours={vals.get('ours')}  ours/redis per round={[round(x,2) for x in ratios]} median={ratio:.2f}")
