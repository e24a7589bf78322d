import re, unicodedata
from pathlib import Path
from rapidfuzz import fuzz
from spiqa_demo.extraction import load_paper
papers = {p.name: load_paper(p) for p in sorted(Path('/work/shared/papers').glob('*.pdf'))}
def norm(t): 
    t = unicodedata.normalize("NFKD", t).casefold()
    t = "".join(c for c in t if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", t).split())
for a, ap in papers.items():
    for i, r in enumerate(ap.references):
        best = max(((fuzz.ratio(norm(r.title), norm(p.title)), n) for n, p in papers.items() if n != a))
        part = max(((fuzz.partial_ratio(norm(p.title), norm(r.text)), n) for n, p in papers.items() if n != a))
        if best[0] > 60 or part[0] > 85 or (r.arxiv_id and any(r.arxiv_id.split('v')[0] == (p.arxiv_id or '').split('v')[0] for p in papers.values())):
            print(f"{a[:20]} {r.key:>8} ratio={best[0]:.0f} {best[1][:20]} part={part[0]:.0f} {part[1][:20]} arx={r.arxiv_id} | {r.title[:90]!r}")
