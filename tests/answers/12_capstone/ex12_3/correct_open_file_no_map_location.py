def save_checkpoint(path, run):
    with open(path, "wb") as f:
        torch.save({
            "model": run.model.state_dict(),
            "optimizer": run.optimizer.state_dict(),
            "scheduler": run.scheduler.state_dict(),
            "step": run.step,
            "rng": [torch.get_rng_state(), run.loader.generator.get_state(), run.epoch_start_rng],
        }, f)


def load_checkpoint(path, run):
    with open(path, "rb") as f:
        ck = torch.load(f, weights_only=True)  # no map_location: the text leaves it to the answer
    run.model.load_state_dict(ck["model"])
    run.optimizer.load_state_dict(ck["optimizer"])
    run.scheduler.load_state_dict(ck["scheduler"])
    run.step = ck["step"]
    torch_rng, loader_rng, run.epoch_start_rng = ck["rng"]
    run.loader.generator.set_state(loader_rng)
    torch.set_rng_state(torch_rng)
