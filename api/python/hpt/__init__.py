"""Python client for hpt, a hyperparameter tuning service.

Ask/tell from a notebook::

    import hpt
    client = hpt.Client("http://127.0.0.1:8750")
    exp = client.create_experiment("experiment.yaml")  # or a dict, or YAML text
    while trials := exp.suggest(count=2):
        for trial in trials:
            loss = train(**trial.parameters)            # float, int or str values
            trial.complete(loss=loss)
    print(exp.best_trial())

Inside a trial that hpt's runner started (metrics collector kind Push)::

    hpt.report(step=epoch, loss=loss)

Standard library only; Experiment.trials_dataframe() uses pandas when it is
installed.
"""

from hpt._errors import ApiError
from hpt.client import DEFAULT_URL, Client
from hpt.experiment import Experiment
from hpt.report import in_trial, report
from hpt.trial import Trial

__version__ = "0.1.0"

__all__ = ["ApiError", "Client", "DEFAULT_URL", "Experiment", "Trial", "in_trial",
           "report", "__version__"]
