# wrong: int32 labels
# Exercise 11.2
def pad_collate(batch, pad_value=0.0):
    """Exercise 11.2: (images (B, C, H, W) padded bottom/right with pad_value, int64 labels, bool mask (B, H, W))."""
    first = batch[0][0]
    C = first.shape[0]
    H = max(img.shape[1] for img, _ in batch)
    W = max(img.shape[2] for img, _ in batch)
    images = first.new_full((len(batch), C, H, W), pad_value)
    mask = torch.zeros((len(batch), H, W), dtype=torch.bool, device=first.device)
    for i, (img, _) in enumerate(batch):
        images[i, :, :img.shape[1], :img.shape[2]] = img
        mask[i, :img.shape[1], :img.shape[2]] = True
    labels = torch.tensor([label for _, label in batch], dtype=torch.int32)
    return images, labels, mask
