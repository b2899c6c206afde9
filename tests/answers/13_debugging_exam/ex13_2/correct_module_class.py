class MLP(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.hidden = nn.Linear(64, HIDDEN)
        self.norm = nn.BatchNorm1d(HIDDEN)
        self.drop = nn.Dropout(0.2)
        self.out = nn.Linear(HIDDEN, n_classes)

    def forward(self, x):
        return self.out(self.drop(torch.relu(self.norm(self.hidden(x.flatten(1))))))


def build_model(n_classes=4):
    return MLP(n_classes)


def make_optimizer(model, lr=3e-3, weight_decay=0.05):
    groups = {True: [], False: []}
    for _, p in model.named_parameters():
        groups[p.dim() > 1].append(p)
    return torch.optim.AdamW([{"params": groups[False], "weight_decay": 0.0},
                              {"params": groups[True], "weight_decay": weight_decay}], lr=lr)
