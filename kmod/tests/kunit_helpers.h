/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunit_helpers.h - helpers shared by twheel's KUnit suites
 *
 * Test-only: included by wheel_kunit.c and api_kunit.c, never by the module.
 */
#ifndef _TWHEEL_KUNIT_HELPERS_H
#define _TWHEEL_KUNIT_HELPERS_H

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

static inline void vfree_action(void *p)
{
	vfree(p);
}

/* vzalloc() that KUnit frees when the test ends, however it ends. */
static inline void *test_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action, p),
			0);
	return p;
}

/* Keep the test thread on one CPU so that its arms are local ones. */
static inline void restore_affinity(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static inline unsigned int pin_to_cpu(struct kunit *test, unsigned int cpu)
{
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_affinity,
							NULL), 0);
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
	return cpu;
}

#endif /* _TWHEEL_KUNIT_HELPERS_H */
