/* Block I/O requests (block/bio.c, block/blk-core.c): every bio completes synchronously. */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/wait.h>

struct bio *bio_alloc(struct block_device *bdev, unsigned int opf, size_t size)
{
	struct bio *bio = kzalloc(sizeof(*bio), GFP_KERNEL);

	if (!bio)
		return NULL;
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	bio->bi_iter.bi_size = size;
	return bio;
}

void bio_put(struct bio *bio)
{
	kfree(bio);
}

/* The driver finished the bio: run its completion. */
void bio_endio(struct bio *bio)
{
	if (bio->bi_end_io)
		bio->bi_end_io(bio);
}

/* Hand a bio to its disk's driver. */
noinline void submit_bio(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	sector_t end = bio->bi_iter.bi_sector + (bio->bi_iter.bi_size >> SECTOR_SHIFT);

	if (end > disk->capacity) {
		bio->bi_status = -EIO;
		bio_endio(bio);
		return;
	}
	disk->fops->submit_bio(bio);
}

struct submit_bio_wait_state {
	bool done;
	wait_queue_head_t wait;
};

static void submit_bio_wait_endio(struct bio *bio)
{
	struct submit_bio_wait_state *s = bio->bi_private;

	s->done = true;
	wake_up(&s->wait);
}

/* Submit and sleep until the bio completes; returns its status (0 or -EIO). */
int submit_bio_wait(struct bio *bio)
{
	struct submit_bio_wait_state s = { .done = false };

	bio->bi_private = &s;
	bio->bi_end_io = submit_bio_wait_endio;
	submit_bio(bio);
	wait_event(s.wait, READ_ONCE(s.done));
	return bio->bi_status;
}
