# caught by the visible tests
DEFAULT_CONFIG = dict(seed=0, epochs=3, batch_size=64, lr=3e-3, weight_decay=1e-4, warmup_steps=10,
                      amp=True, augment=True, compile=False)
TARGET_ACC = 0.9


def train(config):
    c = dict(DEFAULT_CONFIG, **config)
    torch.manual_seed(c["seed"])
    model = build_model(10).to(device)
    fwd = torch.compile(model) if c["compile"] else model
    loader = make_loader(c["batch_size"], c["seed"])
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"], weight_decay=c["weight_decay"])
    sched = make_scheduler(opt, c["warmup_steps"], len(loader) * c["epochs"])
    losses, lrs = [], []
    for epoch in range(c["epochs"]):
        for step, (xb, yb) in enumerate(tqdm(loader, desc=f"epoch {epoch}", leave=False)):
            opt.zero_grad()
            if c["augment"]:
                xb = augment_batch(xb)
            xb, yb = xb.to(device), yb.to(device)
            with torch.autocast(device, torch.bfloat16, enabled=c["amp"]):
                out = fwd(xb)
                loss = F.cross_entropy(out, yb)
            loss.backward()
            lrs.append(float(sched.get_last_lr()[0]))
            sched.step()
            opt.step()
            losses.append(loss.detach().item())
    acc = evaluate(model)
    return dict(losses=losses, lrs=lrs, test_acc=acc, model=model)
