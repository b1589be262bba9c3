"""Optuna's PyTorch example as Optuna users write it: a network whose depth
the trial chooses (a parameter per layer, defined by run), trained on
FashionMNIST, with intermediate accuracies that a MedianPruner prunes.
Its hpt port, pytorch_pruning.py, differs only in the import line."""
import optuna
import torch
import torch.nn as nn
import torch.nn.functional as F

from fashion_data import load

EPOCHS = 4
BATCH = 128
x_train, y_train, x_valid, y_valid = load()


def define_model(trial):
    n_layers = trial.suggest_int("n_layers", 1, 3)
    layers, in_features = [], 28 * 28
    for i in range(n_layers):
        out_features = trial.suggest_int(f"n_units_l{i}", 4, 128, log=True)
        layers += [nn.Linear(in_features, out_features), nn.ReLU(),
                   nn.Dropout(trial.suggest_float(f"dropout_l{i}", 0.2, 0.5))]
        in_features = out_features
    layers.append(nn.Linear(in_features, 10))
    return nn.Sequential(*layers)


def objective(trial):
    torch.manual_seed(trial.number)
    model = define_model(trial)
    optimizer_name = trial.suggest_categorical("optimizer", ["Adam", "RMSprop", "SGD"])
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    optimizer = getattr(torch.optim, optimizer_name)(model.parameters(), lr=lr)
    for epoch in range(EPOCHS):
        model.train()
        for start in range(0, len(x_train), BATCH):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[start:start + BATCH]),
                                   y_train[start:start + BATCH])
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            accuracy = (model(x_valid).argmax(dim=1) == y_valid).float().mean().item()
        trial.report(accuracy, epoch)
        if trial.should_prune():
            raise optuna.exceptions.TrialPruned()
    return accuracy


if __name__ == "__main__":
    torch.set_num_threads(1)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=1),
                                pruner=optuna.pruners.MedianPruner(n_warmup_steps=1))
    study.optimize(objective, n_trials=16)
    pruned = study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.PRUNED])
    complete = study.get_trials(deepcopy=False, states=[optuna.trial.TrialState.COMPLETE])
    print(f"finished trials: {len(study.trials)}  pruned: {len(pruned)}  "
          f"complete: {len(complete)}")
    trial = study.best_trial
    print(f"best trial: {trial.number}  accuracy={trial.value:.4f}  {trial.params}")
