# wrong: the mask read back from the padded values: a real pixel equal to pad_value (a black pixel, padded with 0.0) is marked as padding
# Exercise 11.2
def pad_collate(batch, pad_value=0.0):
    """Exercise 11.2: (images (B, C, H, W) padded bottom/right with pad_value, int64 labels, bool mask (B, H, W))."""
    H = max(img.shape[1] for img, _ in batch)
    W = max(img.shape[2] for img, _ in batch)
    images = torch.stack([F.pad(img, (0, W - img.shape[2], 0, H - img.shape[1]), value=pad_value) for img, _ in batch])
    mask = (images != pad_value).any(dim=1)
    labels = torch.tensor([label for _, label in batch], dtype=torch.int64)
    return images, labels, mask
