# correct (slow): loops over patch positions and stacks them along a new axis
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    layout = PATCH_LAYOUT  # your variant's order inside each patch vector: "c p p" or "p p c"
    B, C, H, W = images.shape
    blocks = [images[:, :, i:i + p, j:j + p] for i in range(0, H, p) for j in range(0, W, p)]   # (B, C, p, p) each
    if layout == "p p c":
        blocks = [b.permute(0, 2, 3, 1) for b in blocks]                                        # (B, p, p, C)
    return torch.stack([b.reshape(B, C * p * p) for b in blocks], dim=1)
