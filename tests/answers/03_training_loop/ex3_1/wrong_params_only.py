# caught by the visible tests
# wrong: copies the parameters only, so BatchNorm's running statistics are not restored
# Exercise 3.1
class EarlyStopping:
    """Exercise 3.1: stop after `patience` epochs without improvement; keep and restore the best weights."""

    def __init__(self, patience=5):
        self.patience = patience
        self.best_loss = float("inf")
        self.best_state = None
        self.bad_epochs = 0

    def step(self, val_loss, model):
        if val_loss < self.best_loss:
            self.best_loss = val_loss
            self.best_state = [p.detach().clone() for p in model.parameters()]
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore(self, model):
        with torch.no_grad():
            for p, saved in zip(model.parameters(), self.best_state):
                p.copy_(saved)
