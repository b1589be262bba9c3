"""Python client for hpt, a hyperparameter tuning service.

In Optuna's idiom, with a private server::

    import hpt

    def objective(trial):
        lr, layers = trial.params["lr"], trial.params["layers"]
        for epoch in range(10):
            accuracy = train_one_epoch(lr, layers)
            trial.report(accuracy, epoch)
            if trial.should_prune():
                raise hpt.Pruned()
        return accuracy

    with hpt.local() as client:                       # `hpt serve` on a free port
        exp = client.create_experiment(
            "mnist", space=[hpt.Float("lr", 1e-5, 1e-1, log=True), hpt.Int("layers", 1, 8)],
            objective="accuracy", direction="maximize", max_trials=30,
            early_stopping="medianstop", load_if_exists=True)
        exp.optimize(objective, n_trials=30, n_jobs=2)
        print(exp.best_trial)

Ask/tell against a running server::

    client = hpt.Client("http://127.0.0.1:8750")
    exp = client.create_experiment("experiment.yaml")  # or a dict, or YAML text
    while trials := exp.suggest(count=2):
        for trial in trials:
            loss = train(**trial.parameters)            # float, int or str values
            trial.complete(loss=loss)

Inside a trial that hpt's runner started (metrics collector kind Push)::

    hpt.report(step=epoch, loss=loss)

Standard library only; Experiment.trials_dataframe() uses pandas when it is
installed.
"""

from hpt import exceptions, pruners, samplers
from hpt._errors import ApiError, PermissionDenied, Pruned, Unauthenticated
from hpt._version import __version__
from hpt.client import DEFAULT_URL, Client
from hpt.experiment import Experiment
from hpt.local import LocalServer, local
from hpt.report import in_trial, report, set_user_attr
from hpt.space import Categorical, Float, Int
from hpt.study import Study, create_study, delete_study, load_study
from hpt.trial import Trial, TrialState

#: Optuna's name for Pruned: ``raise hpt.TrialPruned()``.
TrialPruned = Pruned

__all__ = ["ApiError", "Categorical", "Client", "DEFAULT_URL", "Experiment", "Float", "Int",
           "LocalServer", "PermissionDenied", "Pruned", "Study", "Trial", "TrialPruned",
           "TrialState", "Unauthenticated", "create_study", "delete_study", "exceptions",
           "in_trial", "load_study", "local", "pruners", "report", "samplers", "set_user_attr",
           "__version__"]
