# the file holds one more entry than the text names
def save_checkpoint(path, model, optimizer, scheduler, scaler, epoch):
    """Exercise 13.6: write everything needed to continue training after `epoch` completed epochs."""
    torch.save({"model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "scaler": scaler.state_dict(),
                EPOCH_KEY: epoch, "lr": optimizer.param_groups[0]["lr"]}, path)


def load_checkpoint(path, model, optimizer, scheduler, scaler):
    """Exercise 13.6: restore the objects in place; return the number of epochs already done."""
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    scaler.load_state_dict(checkpoint["scaler"])
    return checkpoint[EPOCH_KEY]
