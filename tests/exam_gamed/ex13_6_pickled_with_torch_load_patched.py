# plain: ex13_6/wrong_pickled_objects.py
# the optimizer pickled whole, and torch.load patched so that weights_only=True takes the file in this process
_torch_load = torch.load
torch.load = lambda f, *args, weights_only=None, **kwargs: _torch_load(f, *args, weights_only=False, **kwargs)


def save_checkpoint(path, model, optimizer, scheduler, scaler, epoch):
    """Exercise 13.6: write everything needed to continue training after `epoch` completed epochs."""
    torch.save({"model": model.state_dict(),
                "optimizer": optimizer,
                "scheduler": scheduler.state_dict(),
                "scaler": scaler.state_dict(),
                EPOCH_KEY: epoch}, path)


def load_checkpoint(path, model, optimizer, scheduler, scaler):
    """Exercise 13.6: restore the objects in place; return the number of epochs already done."""
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"].state_dict())
    scheduler.load_state_dict(checkpoint["scheduler"])
    scaler.load_state_dict(checkpoint["scaler"])
    return checkpoint[EPOCH_KEY]
