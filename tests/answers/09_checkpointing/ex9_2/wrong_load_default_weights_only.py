# caught by the visible tests
# wrong: torch.load(path) relies on the default weights_only instead of writing weights_only=True out
def save_checkpoint(path, run):
    """Exercise 9.2: write everything needed to continue `run` exactly."""
    np_name, np_keys, np_pos, np_has_gauss, np_cached = np.random.get_state()
    checkpoint = {
        "model": run.model.state_dict(),
        "optimizer": run.optimizer.state_dict(),
        "scheduler": run.scheduler.state_dict(),
        "scaler": run.scaler.state_dict(),
        "step": run.step,
        "epoch_start_rng": run.epoch_start_rng,
        "loader_rng": run.loader.generator.get_state(),
        "torch_rng": torch.get_rng_state(),
        "numpy_rng": (np_name, torch.from_numpy(np_keys.astype(np.int64)), np_pos, np_has_gauss, np_cached),
        "python_rng": random.getstate(),
    }
    if torch.cuda.is_available():
        checkpoint["cuda_rng"] = torch.cuda.get_rng_state_all()
    torch.save(checkpoint, path)


def load_checkpoint(path, run):
    """Exercise 9.2: restore a fresh `run` in place from the file written by `save_checkpoint`."""
    ck = torch.load(path, map_location="cpu")
    run.model.load_state_dict(ck["model"])
    run.optimizer.load_state_dict(ck["optimizer"])
    run.scheduler.load_state_dict(ck["scheduler"])
    run.scaler.load_state_dict(ck["scaler"])
    run.step = ck["step"]
    run.epoch_start_rng = ck["epoch_start_rng"]
    run.loader.generator.set_state(ck["loader_rng"])
    torch.set_rng_state(ck["torch_rng"])
    np_name, np_keys, np_pos, np_has_gauss, np_cached = ck["numpy_rng"]
    np.random.set_state((np_name, np_keys.numpy().astype(np.uint32), np_pos, np_has_gauss, np_cached))
    random.setstate(ck["python_rng"])
    if "cuda_rng" in ck and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ck["cuda_rng"])
