# caught by the visible tests
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
    with tqdm(total=total_steps, desc="train", leave=False) as bar:
        for _ in range(config["epochs"]):
            for x, y in loader:
                if config["augment"]:
                    x = augment_batch(x)
                x, y = x.to(device), y.to(device)
                with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=config["amp"]):
                    loss = F.cross_entropy(net(x), y)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                scheduler.step()
                lrs.append(optimizer.param_groups[0]["lr"])
                losses.append(loss.item())
                bar.update(1)
    return {"losses": losses, "lrs": lrs, "test_acc": evaluate(model), "model": model}
