# correct: serializes the best state_dict into an in-memory buffer; the minimum delta added to the loss
import io
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
        if val_loss + self.min_delta < self.best_loss:
            self.best_loss = val_loss
            buf = io.BytesIO()
            torch.save(model.state_dict(), buf)
            self.best_state = buf.getvalue()
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore(self, model):
        model.load_state_dict(torch.load(io.BytesIO(self.best_state)))
