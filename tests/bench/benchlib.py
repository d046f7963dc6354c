"""Tables for the benchmarks: aligned text for people, JSON for scripts."""
import datetime


class Table:
    def __init__(self, name, title, columns, notes=""):
        self.name, self.title, self.columns, self.notes = name, title, columns, notes
        self.rows = []
        self.verdicts = []

    def add(self, *row):
        self.rows.append(list(row))

    def target(self, what, value, goal, ok):
        """One target line: the measured value against the goal."""
        self.verdicts.append((what, value, goal, "met" if ok else "MISSED"))

    def render(self):
        cells = [[str(c) for c in self.columns]] + [[fmt(c) for c in r] for r in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = ["## " + self.title, ""]
        for j, r in enumerate(cells):
            lines.append("| " + " | ".join(c.rjust(w) if j and is_num(c) else c.ljust(w)
                                          for c, w in zip(r, widths)) + " |")
            if j == 0:
                lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        if self.verdicts:
            lines.append("")
            for what, value, goal, verdict in self.verdicts:
                lines.append("- %s: %s (target %s): %s" % (what, fmt(value), goal, verdict))
        if self.notes:
            lines += ["", self.notes]
        lines.append("")
        return "\n".join(lines)

    def as_json(self):
        return {"title": self.title, "columns": self.columns, "rows": self.rows,
                "targets": [dict(zip(("what", "value", "goal", "verdict"), v)) for v in self.verdicts],
                "date": datetime.date.today().isoformat()}


def fmt(c):
    if isinstance(c, float):
        return "%.3g" % c if abs(c) < 1000 else "%.0f" % c
    return str(c)


def is_num(s):
    try:
        float(s.rstrip("%"))
        return True
    except ValueError:
        return False
