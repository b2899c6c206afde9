# copied_default.py with the default's value bound again at the top of the answer cell, so that a test
# that builds its inputs from MIN_DELTA builds them for the default: the hidden tests bind the student's
# own value again before they run, so it still fails
MIN_DELTA = 0.0
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
        if val_loss < self.best_loss:
            self.best_loss = val_loss
            self.best_state = copy.deepcopy(model.state_dict())
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore(self, model):
        model.load_state_dict(self.best_state)
