# correct (slow): loops over patch positions and stacks them along a new axis
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    B, C, H, W = images.shape
    rows = [images[:, :, i:i + p, j:j + p].reshape(B, C * p * p)
            for i in range(0, H, p) for j in range(0, W, p)]
    return torch.stack(rows, dim=1)
