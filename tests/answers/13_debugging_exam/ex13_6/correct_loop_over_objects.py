def save_checkpoint(path, model, optimizer, scheduler, scaler, epoch):
    """Exercise 13.6: write everything needed to continue training after `epoch` completed epochs."""
    state = {EPOCH_KEY: int(epoch)}
    for name, obj in (("model", model), ("optimizer", optimizer), ("scheduler", scheduler), ("scaler", scaler)):
        state[name] = obj.state_dict()
    torch.save(state, path)


def load_checkpoint(path, model, optimizer, scheduler, scaler):
    """Exercise 13.6: restore the objects in place; return the number of epochs already done."""
    with open(path, "rb") as f:
        checkpoint = torch.load(f, map_location="cpu", weights_only=True)
    for name, obj in (("scaler", scaler), ("scheduler", scheduler), ("optimizer", optimizer), ("model", model)):
        obj.load_state_dict(checkpoint[name])
    return checkpoint[EPOCH_KEY]
