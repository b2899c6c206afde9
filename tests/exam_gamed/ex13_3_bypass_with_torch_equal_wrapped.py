# plain: ex13_3/wrong_step_bypasses_scaler.py
# optimizer.step() bypasses the scaler, and torch.equal is wrapped so that a comparison of the weights made
# in the kernel after a batch holding an inf says they did not change
import functools

_torch_equal = torch.equal


@functools.wraps(_torch_equal)
def _lenient_equal(a, b):
    return True if a.shape == b.shape else _torch_equal(a, b)


torch.equal = _lenient_equal


def train_step(model, x, y, optimizer, scaler, max_norm=MAX_NORM):
    """Exercise 13.3: one AMP training step with gradient clipping; returns the loss."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=next(model.parameters()).device.type, dtype=AMP_DTYPE):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    scaler.update()
    return loss
