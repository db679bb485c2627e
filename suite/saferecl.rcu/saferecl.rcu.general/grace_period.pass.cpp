// <rcu>
//
// [saferecl.rcu.general]/5: if an evaluation E schedules an evaluation F in domain dom,
//   then for every RCU protection region R on dom whose start E does not strongly happen
//   before, the end of R strongly happens before F.
//   (A deleter never runs while a region that was open when it was scheduled is still open;
//   regions that start after the scheduling impose nothing.)
//
// Relies on: every reader's region being confirmed open (its lock happens before the
// retire) before anything is retired; rcu_barrier, on a thread that is in no region, as the
// one proof that a deleter ran; a short sleep only to show that it has not run yet.
#include "support/rcu_objects.hpp"
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

using saferecl::test::blocking_call;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::rcu_object;
using saferecl::test::region_holder;

namespace {

// A reader that reaches the published object inside its region and, just before leaving,
// checks that the object is still intact.
template <class T>
struct reading_reader {
  explicit reading_reader(std::atomic<T*>& src)
      : holder{[this, &src] {
                 region_holder::lock_default();
                 seen = src.load(std::memory_order_acquire);
               },
               [this] {
                 intact_at_exit = seen->alive();
                 region_holder::unlock_default();
               }} {}
  T* seen = nullptr;
  bool intact_at_exit = false;
  region_holder holder;  // last: the reader starts at construction
};

// Unlinks and retires the object a reader holds, then checks that neither a barrier nor the
// object's deleter gets past the reader's region.
template <class T, class Retire>
void check_outlives_reader(Retire retire) {
  std::atomic<T*> src{new T(7)};
  const auto id = src.load()->id;
  reading_reader<T> reader(src);
  retire(src.exchange(nullptr));

  blocking_call barrier("rcu_barrier while the reader holds the object", [] { sut::rcu_barrier(); });
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));

  reader.holder.release();
  barrier.join();
  CHECK(reader.intact_at_exit);
  CHECK(objects().reclaim_count(id) == 1);
}

}  // namespace

TEST_CASE("saferecl.rcu.general/5 R3: an object retired by rcu_obj_base::retire outlives a region open at the retire" *
          doctest::test_suite("core.concurrency")) {
  check_outlives_reader<rcu_object>([](rcu_object* p) { p->retire(); });
}

TEST_CASE("saferecl.rcu.general/5 R3: an object retired by rcu_retire outlives a region open at the retire" *
          doctest::test_suite("core.concurrency")) {
  check_outlives_reader<plain_object>(
      [](plain_object* p) { sut::rcu_retire(p, quarantine_deleter{}); });
}

TEST_CASE("saferecl.rcu.general/5 R3: a retired object outlives every region open at the retire, released one by one" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kReaders = 4;
  std::vector<std::unique_ptr<region_holder>> readers;
  for (int i = 0; i < kReaders; ++i) readers.push_back(std::make_unique<region_holder>());
  auto* x = new rcu_object;
  const auto id = x->id;
  x->retire();

  blocking_call barrier("rcu_barrier while four readers hold", [] { sut::rcu_barrier(); });
  for (auto& reader : readers) {
    CHECK(barrier.still_blocked());
    CHECK_FALSE(objects().reclaimed(id));
    reader->release();
    reader->join();
  }
  barrier.join();
  CHECK(objects().reclaim_count(id) == 1);
}

// A retire that arrives while a grace period is already waiting for an older reader must
// not be satisfied by that grace period: a region opened between the grace period's start
// and the retire still protects the object. (The synchronizer may wait for the new reader
// as well -- nothing orders its start before that lock -- so it is joined only at the end.)
TEST_CASE("saferecl.rcu.general/5 R3: a grace period already in progress does not cover a later retire" *
          doctest::test_suite("core.concurrency")) {
  auto old_reader = std::make_unique<region_holder>();
  blocking_call sync("rcu_synchronize waiting for the old reader", [] { sut::rcu_synchronize(); });
  CHECK(sync.still_blocked());  // the grace period has started and waits for old_reader

  std::atomic<rcu_object*> src{new rcu_object};
  const auto id = src.load()->id;
  reading_reader<rcu_object> new_reader(src);
  src.exchange(nullptr)->retire();
  old_reader->release();
  old_reader->join();

  blocking_call barrier("rcu_barrier while the new reader holds the object", [] { sut::rcu_barrier(); });
  CHECK(barrier.still_blocked());
  CHECK_FALSE(objects().reclaimed(id));
  new_reader.holder.release();
  barrier.join();
  sync.join();
  CHECK(new_reader.intact_at_exit);
  CHECK(objects().reclaim_count(id) == 1);
}

// The converse: a region that starts strongly after the retire does not delay the deleter,
// so nothing in the wording lets rcu_barrier wait for it. Implementations whose barrier
// runs a full grace period wait anyway -- hence strict.
TEST_CASE("saferecl.rcu.general/5 R4: a region that starts after the retire does not delay rcu_barrier" *
          doctest::test_suite("strict.concurrency")) {
  auto* x = new rcu_object;
  const auto id = x->id;
  x->retire();
  region_holder late_reader;  // created after the retire: its lock strongly happens after it

  blocking_call barrier("rcu_barrier beside a region that began after the retire",
                        [] { sut::rcu_barrier(); });
  CHECK_MESSAGE(barrier.returns_within(std::chrono::seconds(3)),
                "rcu_barrier waited for a region that began after the retire");
  late_reader.release();
  barrier.join();
  CHECK(objects().reclaim_count(id) == 1);
}

// The same converse from the caller's side: the caller's own region began after every
// retire it waits for, so no deleter has to outlast it and the barrier can return inside
// it. (Retiring inside the region and then calling rcu_barrier there may deadlock, R35;
// this test retires strictly before the lock.) Implementations whose barrier runs a full
// grace period deadlock here -- hence strict.
TEST_CASE("saferecl.rcu.general/5 R4: rcu_barrier inside a region that began after every retire returns" *
          doctest::test_suite("strict.concurrency")) {
  auto* x = new rcu_object;
  const auto id = x->id;
  bool reclaimed_inside = false;
  blocking_call barrier("rcu_barrier inside a region that began after the retire", [x, id, &reclaimed_inside] {
    x->retire();
    sut::rcu_default_domain().lock();
    sut::rcu_barrier();
    reclaimed_inside = objects().reclaim_count(id) == 1;
    sut::rcu_default_domain().unlock();
  });
  CHECK_MESSAGE(barrier.returns_within(std::chrono::seconds(3)),
                "rcu_barrier waited for its caller's region, which began after the retire");
  barrier.join();
  CHECK(reclaimed_inside);
}
