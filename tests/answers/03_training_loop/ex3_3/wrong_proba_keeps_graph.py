# caught by the visible tests
# wrong: predict_proba builds a graph (no no_grad, no detach)
# Exercise 3.3
def make_classifier(n_in, n_hidden, n_out):
    """Exercise 3.3: Linear -> ReLU -> Linear, for nn.CrossEntropyLoss."""
    return nn.Sequential(nn.Linear(n_in, n_hidden), nn.ReLU(), nn.Linear(n_hidden, n_out))


def predict_proba(model, x):
    """Exercise 3.3: class probabilities for x, shape (len(x), n_out), outside any graph."""
    return torch.softmax(model(x), dim=1)
