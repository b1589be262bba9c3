"""Optuna's samplers, read as hpt's algorithms (``sampler=`` of
hpt.create_study): each names the server-side algorithm that suggests the
trials, and its settings. What a sampler cannot carry over is refused by
name, never silently dropped."""

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

Constraints = Optional[Callable[[Any], Sequence[float]]]


class BaseSampler:
    """A sampler: ``algorithm`` and ``settings`` become the experiment's
    spec.algorithm; ``constraints_func`` (Optuna's, where the sampler takes
    one) is called on each trial after its objective, values <= 0 meaning
    feasible."""

    algorithm = ""

    def __init__(self, seed: Optional[int] = None, constraints_func: Constraints = None,
                 **settings: Any) -> None:
        self.seed = seed
        self.constraints_func = constraints_func
        self.settings: Dict[str, Any] = {k: v for k, v in settings.items() if v is not None}
        if seed is not None:
            self.settings["random_state"] = int(seed)

    def to_spec(self) -> Dict[str, Any]:
        """The spec's ``algorithm``."""
        return {"algorithmName": self.algorithm,
                "algorithmSettings": [{"name": k, "value": _text(v)}
                                      for k, v in sorted(self.settings.items())]}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(algorithm={self.algorithm!r}, settings={self.settings!r})"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _refuse(sampler: str, given: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """TypeError naming the arguments that differ from Optuna's defaults,
    which hpt's algorithm does not take."""
    odd = [k for k, v in given.items() if v != defaults.get(k)]
    if odd:
        raise TypeError(f"{sampler}: hpt does not support {', '.join(sorted(odd))} "
                        "(its algorithm has no such setting)")


class RandomSampler(BaseSampler):
    """Independent uniform draws: hpt's ``random``."""

    algorithm = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(seed)


class TPESampler(BaseSampler):
    """Tree-structured Parzen estimators: hpt's ``tpe``, or
    ``multivariate-tpe`` with ``multivariate=True``."""

    def __init__(self, consider_prior: bool = True, prior_weight: float = 1.0,
                 consider_magic_clip: bool = True, consider_endpoints: bool = False,
                 n_startup_trials: int = 10, n_ei_candidates: int = 24,
                 gamma: Any = None, weights: Any = None, seed: Optional[int] = None, *,
                 multivariate: bool = False, group: bool = False,
                 warn_independent_sampling: bool = True, constant_liar: bool = False,
                 constraints_func: Constraints = None) -> None:
        _refuse("TPESampler", {"consider_prior": consider_prior, "prior_weight": prior_weight,
                               "consider_magic_clip": consider_magic_clip,
                               "consider_endpoints": consider_endpoints, "gamma": gamma,
                               "weights": weights},
                {"consider_prior": True, "prior_weight": 1.0, "consider_magic_clip": True,
                 "consider_endpoints": False, "gamma": None, "weights": None})
        self.algorithm = "multivariate-tpe" if multivariate else "tpe"
        super().__init__(seed, constraints_func, n_startup_trials=int(n_startup_trials),
                         n_ei_candidates=int(n_ei_candidates))


class CmaEsSampler(BaseSampler):
    """CMA-ES: hpt's ``cmaes`` (``restart_strategy`` "ipop"/"bipop";
    ``sigma0`` its initial step size)."""

    algorithm = "cmaes"

    def __init__(self, x0: Optional[Dict[str, Any]] = None, sigma0: Optional[float] = None,
                 n_startup_trials: int = 1, independent_sampler: Any = None,
                 warn_independent_sampling: bool = True, seed: Optional[int] = None, *,
                 consider_pruned_trials: bool = False, restart_strategy: Optional[str] = None,
                 popsize: Optional[int] = None, inc_popsize: int = 2,
                 use_separable_cma: bool = False, source_trials: Any = None,
                 with_margin: bool = False) -> None:
        _refuse("CmaEsSampler", {"x0": x0, "n_startup_trials": n_startup_trials,
                                 "popsize": popsize, "use_separable_cma": use_separable_cma,
                                 "source_trials": source_trials, "with_margin": with_margin},
                {"x0": None, "n_startup_trials": 1, "popsize": None, "use_separable_cma": False,
                 "source_trials": None, "with_margin": False})
        super().__init__(seed, None, sigma=sigma0, restart_strategy=restart_strategy)


class GPSampler(BaseSampler):
    """A Gaussian process with expected improvement: hpt's
    ``bayesianoptimization`` (``n_startup_trials`` its n_initial_points)."""

    algorithm = "bayesianoptimization"

    def __init__(self, *, seed: Optional[int] = None, n_startup_trials: int = 10,
                 constraints_func: Constraints = None, **unsupported: Any) -> None:
        _refuse("GPSampler", unsupported, {})
        super().__init__(seed, constraints_func, n_initial_points=int(n_startup_trials))


class NSGAIISampler(BaseSampler):
    """NSGA-II for several objectives: hpt's ``nsga2``."""

    algorithm = "nsga2"

    def __init__(self, *, population_size: int = 50, mutation_prob: Optional[float] = None,
                 crossover: Any = None, crossover_prob: float = 0.9,
                 swapping_prob: float = 0.5, seed: Optional[int] = None,
                 constraints_func: Constraints = None) -> None:
        _refuse("NSGAIISampler", {"crossover": crossover}, {"crossover": None})
        super().__init__(seed, constraints_func, population_size=int(population_size),
                         mutation_prob=mutation_prob, crossover_prob=crossover_prob,
                         swapping_prob=swapping_prob)


class QMCSampler(BaseSampler):
    """A scrambled Sobol sequence: hpt's ``sobol``."""

    algorithm = "sobol"

    def __init__(self, *, qmc_type: str = "sobol", scramble: bool = False,
                 seed: Optional[int] = None, **unsupported: Any) -> None:
        _refuse("QMCSampler", dict(unsupported, qmc_type=qmc_type), {"qmc_type": "sobol"})
        super().__init__(seed)


class GridSampler(BaseSampler):
    """Every combination of ``search_space`` ({name: [values]}): hpt's
    ``grid`` over that space, declared up front."""

    algorithm = "grid"

    def __init__(self, search_space: Mapping[str, Sequence[Any]],
                 seed: Optional[int] = None) -> None:
        super().__init__(None)
        self.search_space = {str(k): list(v) for k, v in search_space.items()}

    def space(self) -> List[Any]:
        from hpt.space import Categorical
        return [Categorical(name, values) for name, values in self.search_space.items()]


__all__ = ["BaseSampler", "CmaEsSampler", "GPSampler", "GridSampler", "NSGAIISampler",
           "QMCSampler", "RandomSampler", "TPESampler"]
