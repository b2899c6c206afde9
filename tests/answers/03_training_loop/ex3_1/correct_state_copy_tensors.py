# correct: a dict of cloned tensors kept with the best loss; restore with load_state_dict(strict=True)
# Exercise 3.1
class EarlyStopping:
    """Exercise 3.1: stop after `patience` epochs without improvement; keep and restore the best weights."""

    def __init__(self, patience=5):
        self.patience = patience
        self.min_delta = MIN_DELTA  # your variant's minimum improvement (see the statement)
        self.best_loss = float("inf")
        self.best_state = None
        self.bad_epochs = 0

    def step(self, val_loss, model):
        """Record one epoch's validation loss; return True when training should stop."""
        improved = self.best_loss - val_loss > self.min_delta if self.best_state is not None else True
        if not improved:
            self.bad_epochs += 1
            return self.bad_epochs >= self.patience
        self.best_loss = val_loss
        self.best_state = {name: t.detach().clone() for name, t in model.state_dict().items()}
        self.bad_epochs = 0
        return False

    def restore(self, model):
        """Load the best state seen so far into `model`."""
        model.load_state_dict(self.best_state, strict=True)
