"""The search of examples/notebook.ipynb written with Optuna, for the
README's side-by-side line count. Runs with Debian's python3-optuna:
/usr/bin/python3 examples/optuna-twin/digits_svc_optuna.py"""
import numpy as np
import optuna
from sklearn.datasets import load_digits
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

X, y = load_digits(return_X_y=True)
X = X / 16.0  # pixel intensities 0..16 -> 0..1
folds = list(StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(X, y))


def objective(trial):
    params = {"C": trial.suggest_float("C", 1e-2, 1e3, log=True),
              "gamma": trial.suggest_float("gamma", 1e-5, 1, log=True),
              "kernel": trial.suggest_categorical("kernel", ["rbf", "poly"]),
              "degree": trial.suggest_int("degree", 2, 4)}
    scores = []
    for step, (train, test) in enumerate(folds, start=1):
        model = SVC(**params).fit(X[train], y[train])
        scores.append(model.score(X[test], y[test]))
        trial.report(np.mean(scores), step)  # the objective at this fold
    return np.mean(scores)


study = optuna.create_study(study_name="digits-svc", direction="maximize",
                            sampler=optuna.samplers.RandomSampler(seed=42))
study.optimize(objective, n_trials=20)

best = study.best_trial
print(f"best trial: {best.number}  accuracy={best.value:.4f}  {best.params}")

frame = study.trials_dataframe().sort_values("value", ascending=False)
print(frame[["number", "state", "params_C", "params_gamma", "params_kernel", "params_degree",
             "value"]].head(5).to_string(index=False))
