# correct: torch.inference_mode(), all outputs concatenated and scored once, mode restored with train(flag)
# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    mode = model.training
    model.eval()
    outs, ys = [], []
    with torch.inference_mode():
        for xb, yb in loader:
            outs.append(model(xb.to(device)))
            ys.append(yb.to(device))
        out, y = torch.cat(outs), torch.cat(ys)
        loss = loss_fn(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    model.train(mode)
    return loss, acc
