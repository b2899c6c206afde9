# correct: F.pad each image (last dimension first) and its mask of ones, then torch.stack
# Exercise 11.2
def pad_collate(batch, pad_value=0.0):
    """Exercise 11.2: (images (B, C, H, W) padded bottom/right with pad_value, int64 labels, bool mask (B, H, W))."""
    H = max(x.shape[-2] for x, _ in batch)
    W = max(x.shape[-1] for x, _ in batch)
    images, masks = [], []
    for x, _ in batch:
        dh, dw = H - x.shape[-2], W - x.shape[-1]
        images.append(F.pad(x, (0, dw, 0, dh), value=pad_value))
        masks.append(F.pad(torch.ones(x.shape[-2:], dtype=torch.bool), (0, dw, 0, dh), value=False))
    return torch.stack(images), torch.tensor([y for _, y in batch]), torch.stack(masks)
