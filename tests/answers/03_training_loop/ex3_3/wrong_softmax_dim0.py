# caught by the visible tests
# wrong: softmax over the batch dimension instead of the classes
# Exercise 3.3
def make_classifier(n_in, n_hidden, n_out):
    """Exercise 3.3: Linear -> ReLU -> Linear, for nn.CrossEntropyLoss."""
    return nn.Sequential(nn.Linear(n_in, n_hidden), nn.ReLU(), nn.Linear(n_hidden, n_out))


def predict_proba(model, x):
    """Exercise 3.3: class probabilities for x, shape (len(x), n_out), outside any graph."""
    with torch.no_grad():
        return torch.softmax(model(x), dim=0)
