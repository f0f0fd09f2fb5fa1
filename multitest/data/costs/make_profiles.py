"""Regenerate training_time.yaml and space_complexity.yaml from the report's tables.

Run from the repository root:  python costs/make_profiles.py
"""
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "ulas2008")
SOURCE = ("Ulas, Yildiz & Alpaydin, Cost-conscious comparison of supervised learning algorithms "
          "over multiple data sets, Bogazici University technical report FBE/CMPE-01/2008-04, "
          "appendix tables")
PROFILES = {
    "training_time": ("Normalized average training time of each algorithm on each data set",
                      "normalized training time (report's scale, slowest algorithm about 100)"),
    "space_complexity": ("Normalized space complexity (model size) of each algorithm on each "
                         "data set", "normalized space complexity (largest model about 100)"),
}

for name, (description, unit) in PROFILES.items():
    with open(os.path.join(DATA, f"{name}.csv"), newline="") as handle:
        rows = list(csv.DictReader(handle))
    algorithms = [c for c in rows[0] if c != "dataset"]
    lines = [f"name: {name}", f"description: {description}", f"source: {SOURCE}",
             f"unit: {unit}",
             "# The report's tables are already normalized per data set; averaged as they are.",
             "normalization: none", "per_dataset:"]
    for row in rows:
        cells = ", ".join(f"{a}: {row[a]}" for a in algorithms)
        lines.append(f"  {row['dataset']}: {{{cells}}}")
    with open(os.path.join(HERE, f"{name}.yaml"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
