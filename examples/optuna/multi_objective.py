"""Optuna's multi-objective example run by hpt: multi_objective_optuna.py
with its import line changed to `import hpt as optuna`, and nothing else.
Accuracy (maximize) against size in multiply-adds (minimize) by NSGA-II;
the Pareto front is study.best_trials."""
import hpt as optuna
import torch
import torch.nn as nn
import torch.nn.functional as F

from fashion_data import load

EPOCHS = 3
BATCH = 128
x_train, y_train, x_valid, y_valid = load()


def define_model(trial):
    n_layers = trial.suggest_int("n_layers", 1, 3)
    layers, in_features = [], 28 * 28
    for i in range(n_layers):
        out_features = trial.suggest_int(f"n_units_l{i}", 4, 128, log=True)
        layers += [nn.Linear(in_features, out_features), nn.ReLU()]
        in_features = out_features
    layers.append(nn.Linear(in_features, 10))
    return nn.Sequential(*layers)


def objective(trial):
    torch.manual_seed(trial.number)
    model = define_model(trial)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(EPOCHS):
        for start in range(0, len(x_train), BATCH):
            optimizer.zero_grad()
            F.cross_entropy(model(x_train[start:start + BATCH]),
                            y_train[start:start + BATCH]).backward()
            optimizer.step()
    with torch.no_grad():
        accuracy = (model(x_valid).argmax(dim=1) == y_valid).float().mean().item()
    flops = sum(m.in_features * m.out_features for m in model if isinstance(m, nn.Linear))
    return flops, accuracy


if __name__ == "__main__":
    torch.set_num_threads(1)
    study = optuna.create_study(directions=["minimize", "maximize"],
                                sampler=optuna.samplers.NSGAIISampler(seed=2, population_size=6))
    study.optimize(objective, n_trials=18)
    print(f"finished trials: {len(study.trials)}  on the Pareto front: {len(study.best_trials)}")
    for trial in sorted(study.best_trials, key=lambda t: t.values[0]):
        print(f"  trial {trial.number}: flops={trial.values[0]:.0f}  "
              f"accuracy={trial.values[1]:.4f}  {trial.params}")
