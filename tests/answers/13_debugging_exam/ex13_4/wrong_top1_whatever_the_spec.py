# the usual top-1 accuracy whatever the spec's TOPK
# variant: {"TOPK": 2}
def evaluate(model, loader):
    """Exercise 13.4: (mean loss per sample, top-TOPK accuracy) over `loader`, in eval mode and without gradients."""
    was_training = model.training
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            total_loss += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.topk(1, dim=1).indices == y[:, None]).any(dim=1).sum().item()
            n += len(y)
    model.train(was_training)
    return total_loss / n, correct / n
