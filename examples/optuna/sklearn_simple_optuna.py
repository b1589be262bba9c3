"""Optuna's sklearn example as Optuna users write it: a classifier chosen
by the trial, and each classifier's own parameters (a conditional space,
defined by run). Its hpt port, sklearn_simple.py, differs only in the
import line."""
import optuna
import sklearn.datasets
import sklearn.ensemble
import sklearn.model_selection
import sklearn.svm


def objective(trial):
    x, y = sklearn.datasets.load_iris(return_X_y=True)
    classifier_name = trial.suggest_categorical("classifier", ["SVC", "RandomForest"])
    if classifier_name == "SVC":
        svc_c = trial.suggest_float("svc_c", 1e-10, 1e10, log=True)
        classifier_obj = sklearn.svm.SVC(C=svc_c, gamma="auto")
    else:
        rf_max_depth = trial.suggest_int("rf_max_depth", 2, 32, log=True)
        classifier_obj = sklearn.ensemble.RandomForestClassifier(
            max_depth=rf_max_depth, n_estimators=10, random_state=0)
    score = sklearn.model_selection.cross_val_score(classifier_obj, x, y, n_jobs=1, cv=3)
    return score.mean()


if __name__ == "__main__":
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=0))
    study.optimize(objective, n_trials=30)
    print(f"finished trials: {len(study.trials)}")
    trial = study.best_trial
    print(f"best trial: {trial.number}  accuracy={trial.value:.4f}  {trial.params}")
