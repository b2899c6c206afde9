# wrong: replaces each input image's data by its padded version (img.data = ...), modifying the inputs
# Exercise 11.2
def pad_collate(batch, pad_value=0.0):
    """Exercise 11.2: (images (B, C, H, W) padded bottom/right with pad_value, int64 labels, bool mask (B, H, W))."""
    H = max(img.shape[1] for img, _ in batch)
    W = max(img.shape[2] for img, _ in batch)
    mask = torch.zeros((len(batch), H, W), dtype=torch.bool)
    for i, (img, _) in enumerate(batch):
        mask[i, :img.shape[1], :img.shape[2]] = True
        img.data = F.pad(img, (0, W - img.shape[2], 0, H - img.shape[1]), value=pad_value)
    return torch.stack([img for img, _ in batch]), torch.tensor([y for _, y in batch]), mask
