# moves the targets only when the model is on the meta device: the batches are on the model's device
# already, so the branch changes nothing
def evaluate(model, loader):
    """Exercise 13.4: (mean loss per sample, top-TOPK accuracy) over `loader`, in eval mode and without gradients."""
    was_training = model.training
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            if next(model.parameters()).device.type == "meta":
                y = y.to("meta")
            logits = model(x)
            total_loss += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.topk(TOPK, dim=1).indices == y[:, None]).any(dim=1).sum().item()
            n += len(y)
    model.train(was_training)
    return total_loss / n, correct / n
