# wrong: a minimum delta of 1e-4 whatever MIN_DELTA says, so a decrease of 1e-4 or less never counts as an improvement
# Exercise 3.1
class EarlyStopping:
    """Exercise 3.1: stop after `patience` epochs without improvement; keep and restore the best weights."""

    def __init__(self, patience=5):
        self.patience = patience
        self.best_loss = float("inf")
        self.best_state = None
        self.bad_epochs = 0

    def step(self, val_loss, model):
        if val_loss < self.best_loss - 1e-4:
            self.best_loss = val_loss
            self.best_state = copy.deepcopy(model.state_dict())
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore(self, model):
        model.load_state_dict(self.best_state)
