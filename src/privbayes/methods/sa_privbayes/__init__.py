"""SA-PrivBayes's own parts (Future Internet 2026): AMI ordering, screening, score-driven budgets,
its settings and plan, and network learning in a given order."""
