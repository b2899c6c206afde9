DEFAULT_CONFIG = dict(seed=0, epochs=3, batch_size=64, lr=3e-3, weight_decay=1e-4, warmup_steps=10,
                      amp=True, augment=True, compile=False)
TARGET_ACC = 0.9


def train(config):
    """Exercise 12.2: train build_model() as `config` says; return losses, lrs, test_acc and the model."""
    config = {**DEFAULT_CONFIG, **config}
    torch.manual_seed(config["seed"])
    model = build_model(10).to(device)
    net = torch.compile(model) if config["compile"] else model
    loader = make_loader(config["batch_size"], config["seed"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
    total_steps = config["epochs"] * len(loader)
    scheduler = make_scheduler(optimizer, config["warmup_steps"], total_steps)
    losses, lrs = [], []
    for _ in range(config["epochs"]):
        for x, y in tqdm(loader, leave=False):
            if config["augment"]:
                x = augment_batch(x)
            x, y = x.to(device), y.to(device)
            with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=config["amp"]):
                loss = F.cross_entropy(net(x), y)
            loss.backward()  # the gradients of every earlier batch are still there
            lrs.append(optimizer.param_groups[0]["lr"])
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
    return {"losses": losses, "lrs": lrs, "test_acc": evaluate(model), "model": model}
