# caught by the visible tests
# wrong: saves and restores only the model's weights
def save_checkpoint(path, run):
    """Exercise 9.2: write everything needed to continue `run` exactly."""
    np_name, np_keys, np_pos, np_has_gauss, np_cached = np.random.get_state()
    checkpoint = {
        "model": run.model.state_dict(),
    }
    torch.save(checkpoint, path)


def load_checkpoint(path, run):
    """Exercise 9.2: restore a fresh `run` in place from the file written by `save_checkpoint`."""
    ck = torch.load(path, weights_only=True, map_location="cpu")
    run.model.load_state_dict(ck["model"])
