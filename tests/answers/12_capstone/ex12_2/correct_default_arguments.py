import contextlib

DEFAULT_CONFIG = dict(seed=0, epochs=3, batch_size=64, lr=3e-3, weight_decay=1e-4, warmup_steps=10,
                      amp=True, augment=True, compile=False)
TARGET_ACC = 0.9


def train(config, build=build_model, loader_of=make_loader):
    """Exercise 12.2: train build_model() as `config` says; return losses, lrs, test_acc and the model."""
    cfg = dict(DEFAULT_CONFIG)
    cfg.update(config)
    torch.manual_seed(cfg["seed"])
    model = build(10).to(device)
    if cfg["compile"]:
        model = torch.compile(model)
    loader = loader_of(cfg["batch_size"], cfg["seed"])
    steps = cfg["epochs"] * math.ceil(len(loader.dataset) / cfg["batch_size"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    sched = make_scheduler(opt, cfg["warmup_steps"], steps)
    history = {"losses": [], "lrs": []}
    bar = tqdm(range(steps), desc="train")
    it = None
    for step in bar:
        if step % len(loader) == 0:
            it = iter(loader)
        x, y = next(it)
        x = augment_batch(x) if cfg["augment"] else x
        ctx = torch.autocast(device_type=device, dtype=torch.bfloat16) if cfg["amp"] else contextlib.nullcontext()
        with ctx:
            logits = model(x.to(device))
        loss = F.cross_entropy(logits.float(), y.to(device))
        loss.backward()
        history["lrs"].append(sched.get_last_lr()[0])
        opt.step()
        opt.zero_grad()
        sched.step()
        history["losses"].append(float(loss))
    bar.close()
    history["test_acc"] = evaluate(model)
    history["model"] = model
    return history
