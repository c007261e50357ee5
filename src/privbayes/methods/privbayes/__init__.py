"""PrivBayes's own parts (TODS 2017): its settings and budget plan, and the cost of a fit."""
