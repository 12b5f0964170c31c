# A crude count of same-bank register reads in the FFMAs of each loop of the kernels whose name
# matches: per FFMA, the source registers not served by the operand reuse cache (the same slot
# marked .reuse on the FFMA before), grouped by register number mod 2 (and mod 4); every read
# beyond the first in a group is counted. A lead for ptxas's register choice, not a model of the
# hardware.   usage: python3 sass_banks.py SASS_FILE:REGEX ...   (SASS from cuobjdump -sass)
import os,re,sys,collections
def funcs(path):
    lines=open(path).read().split('\n')
    d=collections.OrderedDict(); f=None
    for l in lines:
        m=re.search(r'Function : (\S+)',l)
        if m: f=m.group(1); d[f]=[]; continue
        m=re.search(r'/\*([0-9a-f]{4,5})\*/\s+(.*?);',l)
        if f and m: d[f].append((int(m.group(1),16),m.group(2).strip()))
    return d
def analyze(body, nb):
    conf=0; n=0; prev_reuse=[None,None,None]
    for addr,i in body:
        if not i.startswith('FFMA'):
            prev_reuse=[None,None,None]; continue
        ops=[o.strip() for o in i[4:].split(',')]
        srcs=ops[1:4]
        regs=[]
        for slot,o in enumerate(srcs):
            m=re.match(r'-?R(\d+)(\.reuse)?',o)
            if not m: regs.append(None); continue
            r=int(m.group(1))
            cached = prev_reuse[slot]==r
            regs.append(None if cached else r)
        prev_reuse=[ (int(re.match(r'-?R(\d+)',o).group(1)) if re.match(r'-?R(\d+)\.reuse',o) else None) for o in srcs]
        rf=[r for r in regs if r is not None]
        c=collections.Counter(r%nb for r in set(rf))
        n+=1
        if c and max(c.values())>=2: conf+= max(c.values())-1
    return n,conf
for tag,pat in [a.rsplit(':',1) for a in sys.argv[1:]]:
    for f,body in funcs(tag).items():
        if not re.search(pat,f): continue
        for addr,i in body:
            m=re.search(r'BRA (0x[0-9a-f]+)',i)
            if m and int(m.group(1),16)<addr:
                lo=int(m.group(1),16); loop=[x for x in body if lo<=x[0]<=addr]
                n,c2=analyze(loop,2); _,c4=analyze(loop,4)
                name = re.sub(r'.*?(sgemm_[a-z0-9_]+?_kernel).*', r'\1', f)
                if 'ring2' in f:  # the experiment file's variants: group, unroll flags
                    name += ' ' + '/'.join(re.findall(r'EL([ib]\d+)', f)[-4:])
                print(f'{os.path.basename(tag)} {name} loop {len(loop):5d}: FFMA {n}, '
                      f'same-bank reads beyond the first (mod 2) {c2} ({c2 / len(loop) * 100:.1f}% '
                      f'of the loop), (mod 4) {c4}')
