"""Optuna's exception names: ``raise hpt.exceptions.TrialPruned()``."""

from hpt._errors import Pruned as TrialPruned

__all__ = ["TrialPruned"]
