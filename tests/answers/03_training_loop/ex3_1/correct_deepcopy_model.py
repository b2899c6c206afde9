# correct: keeps a deep copy of the whole model and its epoch counter instead of a bad-epoch count; reads
# MIN_DELTA where it compares, as the size of the decrease
import copy


class EarlyStopping:
    def __init__(self, patience=5):
        self.patience = patience
        self.best = None
        self.best_epoch = -1
        self.epoch = -1
        self.best_model = None

    def step(self, val_loss, model):
        self.epoch += 1
        if self.best is None or self.best - val_loss > MIN_DELTA:
            self.best, self.best_epoch = val_loss, self.epoch
            self.best_model = copy.deepcopy(model)
        return self.epoch - self.best_epoch == self.patience

    def restore(self, model):
        model.load_state_dict(self.best_model.state_dict())
