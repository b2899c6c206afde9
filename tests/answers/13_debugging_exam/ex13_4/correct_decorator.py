@torch.no_grad()
def evaluate(model, loader):
    """Exercise 13.4: (mean loss per sample, top-TOPK accuracy) over `loader`, in eval mode and without gradients."""
    was_training = model.training
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        total_loss += F.cross_entropy(logits, y).item() * len(y)
        _, top = logits.topk(TOPK, dim=1)
        correct += (top == y.unsqueeze(1)).sum().item()  # at most one of the k indices is the label
        n += len(y)
    model.train(was_training)
    return total_loss / n, correct / n
