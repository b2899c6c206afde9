# wrong: NumPy's key words stored as float32, which cannot hold every 32-bit integer: the restored RNG differs
def save_checkpoint(path, run):
    """Exercise 9.2: write everything needed to continue `run` exactly."""
    name, keys, pos, has_gauss, cached = np.random.get_state()
    torch.save({
        "model": run.model.state_dict(), "optimizer": run.optimizer.state_dict(),
        "scheduler": run.scheduler.state_dict(), "scaler": run.scaler.state_dict(), "step": run.step,
        "epoch_start_rng": run.epoch_start_rng, "loader_rng": run.loader.generator.get_state(),
        "torch_rng": torch.get_rng_state(),
        "numpy_rng": (name, torch.tensor(keys, dtype=torch.float32), pos, has_gauss, cached),
        "python_rng": random.getstate(),
    }, path)


def load_checkpoint(path, run):
    """Exercise 9.2: restore a fresh `run` in place from the file written by `save_checkpoint`."""
    ck = torch.load(path, weights_only=True)
    run.model.load_state_dict(ck["model"])
    run.optimizer.load_state_dict(ck["optimizer"])
    run.scheduler.load_state_dict(ck["scheduler"])
    run.scaler.load_state_dict(ck["scaler"])
    run.step = ck["step"]
    run.epoch_start_rng = ck["epoch_start_rng"]
    run.loader.generator.set_state(ck["loader_rng"])
    torch.set_rng_state(ck["torch_rng"])
    name, keys, pos, has_gauss, cached = ck["numpy_rng"]
    np.random.set_state((name, keys.double().numpy().astype(np.uint32), pos, has_gauss, cached))
    random.setstate(ck["python_rng"])
