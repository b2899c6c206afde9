# correct: NumPy's key array kept as a uint32 tensor (no conversion), the Python RNG state as a list
def save_checkpoint(path, run):
    """Exercise 9.2: write everything needed to continue `run` exactly."""
    np_state = list(np.random.get_state())
    np_state[1] = torch.from_numpy(np_state[1].copy())
    py_version, py_internal, py_gauss = random.getstate()
    torch.save(dict(
        model=run.model.state_dict(), optimizer=run.optimizer.state_dict(),
        scheduler=run.scheduler.state_dict(), scaler=run.scaler.state_dict(),
        step=run.step, epoch_start_rng=run.epoch_start_rng, loader_rng=run.loader.generator.get_state(),
        torch_rng=torch.random.get_rng_state(), numpy_rng=np_state,
        python_rng=[py_version, list(py_internal), py_gauss],
    ), path)


def load_checkpoint(path, run):
    """Exercise 9.2: restore a fresh `run` in place from the file written by `save_checkpoint`."""
    with open(path, "rb") as f:
        ck = torch.load(f, weights_only=True)
    run.scaler.load_state_dict(ck["scaler"])
    run.model.load_state_dict(ck["model"])
    run.optimizer.load_state_dict(ck["optimizer"])
    run.scheduler.load_state_dict(ck["scheduler"])
    run.step = ck["step"]
    run.epoch_start_rng = ck["epoch_start_rng"]
    run.loader.generator.set_state(ck["loader_rng"])
    torch.random.set_rng_state(ck["torch_rng"])
    np_state = list(ck["numpy_rng"])
    np_state[1] = np_state[1].numpy()
    np.random.set_state(tuple(np_state))
    version, internal, gauss = ck["python_rng"]
    random.setstate((version, tuple(internal), gauss))
